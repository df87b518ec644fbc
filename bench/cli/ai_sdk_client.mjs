// The Vercel AI SDK, as the bench's peer: one streamed chat completion through its
// OpenAI-compatible provider, each delta written to stdout as it comes.
// Usage: node ai_sdk_client.mjs BASE_URL TEXT
import { streamText } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';

const [baseURL, text] = process.argv.slice(2);
const provider = createOpenAICompatible({ name: 'bench', baseURL, apiKey: 'bench' });
const result = streamText({ model: provider.chatModel('bench'), prompt: text });
for await (const delta of result.textStream) {
  process.stdout.write(delta);
}
process.stdout.write('\n');
