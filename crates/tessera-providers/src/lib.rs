//! Model providers: OpenAI-compatible and Anthropic clients, the normalised stream, retries,
//! usage and cost, the keyring trait. Filled in by the providers issue.
