import type { ReactNode } from 'react';
import { InspectorProvider } from '../inspector/ContextInspector';
import type { TesseraClient } from '../transport/client';
import { ConversationLog } from './components/ConversationLog';
import { AttachmentProvider } from './components/ToolImages';
import type { ChatSession } from './useChatSession';

export { warmUpMarkdown } from './components/warmUp';

/**
 * A conversation's messages with what they need around them (the context inspector, the
 * attachments). Its own chunk (lazy/pages.ts): the Markdown renderer and its highlighter are
 * loaded when there is something to show, not when the app starts.
 */
export default function ConversationPane({ client, session, setup }: { client: TesseraClient | null; session: ChatSession; setup?: ReactNode }) {
  return (
    <InspectorProvider client={client}>
      <AttachmentProvider source={client}>
        <ConversationLog session={session} setup={setup} />
      </AttachmentProvider>
    </InspectorProvider>
  );
}
