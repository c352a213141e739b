/**
 * The header on every answer the egress proxy makes itself, never on an upstream's (the proxy
 * strips it from those): why the request was refused or failed, percent-encoded. The forwarder in
 * each sandbox child reads it to explain the failure in the workflow's own error; it may import
 * only `node:` built-ins, so it spells these names out again.
 */
export const egressRefusalHeader = "x-weft-egress-refusal";

/**
 * A path the forwarder asks for when a connection it relayed broke without an answer: 200 with
 * the refusal header when the child's byte budget is used up (its tunnels were cut), else 204.
 */
export const egressStatusPath = "/weft-egress-status";
