package dht.node.http;

/**
 * The user event {@link RequestAssembler} fires when it stops dropping the rest of a refused body
 * (past {@link RequestAssembler#MAX_DISCARD_BYTES}): no request follows on this connection, so
 * {@link ResponseSequencer} closes it once its pending answers, the refusal included, are out.
 */
enum RefusedBodyCutOff {
    INSTANCE
}
