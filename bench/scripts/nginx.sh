# Sourced by the comparison scripts: start_nginx PORT DIR starts Debian's nginx (nginx-light) on
# 127.0.0.1:PORT answering every request with a small static 200 (the ceiling of HTTP on this
# machine), daemonized, with its files under DIR, and stops it when the calling script exits.
start_nginx() {
  local port="$1" dir="$2"
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
  server { listen 127.0.0.1:$port; location / { return 200 "hello\n"; } }
}
NGINX
  nginx -c "$dir/nginx.conf"
  trap 'kill "$(cat "'"$dir"'/nginx.pid")" 2>/dev/null' EXIT
  sleep 0.5
}
