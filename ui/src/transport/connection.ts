/**
 * Where the UI stands with the engine. At this stage nothing connects yet, so the app always
 * starts (and stays) `disconnected`; the composer says so and does not pretend to send.
 */
export type ConnectionState = 'disconnected' | 'connecting' | 'connected';
