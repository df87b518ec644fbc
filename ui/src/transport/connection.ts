/**
 * Where the UI stands with the engine: no token (`disconnected`: the page was not opened from
 * the address `tessera serve` printed), `connecting`, `connected`, or `error` (the reason is
 * shown, and the app keeps retrying unless the token was refused).
 */
export type ConnectionState = 'disconnected' | 'connecting' | 'connected' | 'error';
