/**
 * What waits for the person in the conversation shown: forms and consent requests, answered
 * from their cards. Those waiting when it opens come from `GET /v1/interactions`
 * (useSelection.ts), later ones from its events (reducer.ts).
 */
import { useCallback } from 'react';
import type { Answer, StreamEvent } from '../../transport/client';
import { clearFormDraft } from '../forms/formDrafts';
import { closeInteraction } from '../reducer';
import type { ChatDrawing } from './useChatDrawing';
import type { SessionCore } from './useSessionStore';

/** A form closed another way than its card (the run stopped, answered elsewhere) leaves no draft. */
export function forgetDraftOfClosedForm(event: StreamEvent['event']): void {
  if (event.domain === 'interaction' && (event.type === 'form_result' || event.type === 'form_cancel')) {
    clearFormDraft(event.payload.form_id);
  }
}

/** Answers interaction `interactionId`; once the engine has it, it no longer waits here. */
export function useAnswer(core: SessionCore, draw: ChatDrawing['draw']): (interactionId: string, answer: Answer) => Promise<void> {
  const { client, chatRef } = core;
  return useCallback(
    async (interactionId: string, value: Answer) => {
      if (!client) return;
      await client.answerInteraction(interactionId, value);
      draw(closeInteraction(chatRef.current, interactionId));
    },
    [chatRef, client, draw],
  );
}
