# Sourced by the comparison scripts: start_nginx PORT DIR starts Debian's nginx (nginx-light) on
# 127.0.0.1:PORT answering every request with a small static 200 (the ceiling of HTTP on this
# machine), daemonized, with its files under DIR, and stops it when the calling script exits.
# NGINX_REUSEPORT=1 gives each worker its own listening socket (`listen ... reuseport`): the kernel
# then spreads new connections over the workers, where with one shared socket the worker that
# wakes first may take most of a burst of connects and leave the other idle.
start_nginx() {
  local port="$1" dir="$2" listen_opts=""
  [ "${NGINX_REUSEPORT:-0}" = 1 ] && listen_opts=" reuseport"
  command -v nginx >/dev/null || { echo "needs nginx: apt-get install -y nginx-light" >&2; return 1; }
  mkdir -p "$dir/tmp"
  cat > "$dir/nginx.conf" <<NGINX
worker_processes auto;
daemon on;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $dir/tmp; proxy_temp_path $dir/tmp; fastcgi_temp_path $dir/tmp;
  uwsgi_temp_path $dir/tmp; scgi_temp_path $dir/tmp;
  keepalive_requests 100000000;
  server { listen 127.0.0.1:$port$listen_opts; location / { return 200 "hello\n"; } }
}
NGINX
  nginx -c "$dir/nginx.conf"
  trap 'kill "$(cat "'"$dir"'/nginx.pid" 2>/dev/null)" 2>/dev/null' EXIT
  sleep 0.5
}
stop_nginx() { # DIR: stops the nginx start_nginx started there, and waits until it is gone
  local pid
  pid="$(cat "$1/nginx.pid" 2>/dev/null)" || return 0
  kill "$pid" 2>/dev/null || return 0
  while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
}
