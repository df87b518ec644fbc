/**
 * Answers whose run ended with nothing stored (it failed, or was stopped, before any text): the
 * engine keeps no message for them, so they are not on any branch, and the log places them from
 * the run's events. Such an answer is where its run's question is: under that question when the
 * branch shown holds it and nothing answered it since; otherwise it is no longer news (the
 * question was retried, answered, or is on a branch not shown) and is not shown at all.
 */
import type { StoredMessage } from '../transport/client';
import { isLive, type ChatState, type RunInfo } from './reducer';

export interface UnkeptAnswers {
  /** The question of the branch shown → the one unkept answer drawn under it. */
  under: Map<string, string>;
  /** Unkept answers the log leaves out. */
  hidden: Set<string>;
}

function ended(run: RunInfo): boolean {
  return run.done || !isLive(run.state);
}

/**
 * Where the log draws each unkept answer of `chat`. `history` is the branch shown; `ownRuns`
 * the runs of the turns the log still draws as sent (their question is not stored yet), whose
 * answers stay with them.
 */
export function placeUnkept(chat: ChatState, history: StoredMessage[], offBranch: ReadonlySet<string>, ownRuns: ReadonlySet<string>): UnkeptAnswers {
  const under = new Map<string, string>();
  const hidden = new Set<string>();
  const position = new Map(history.map((m, i) => [m.id, i]));
  // The newest run of each question, and the newest of all.
  const newest = new Map<string, number>();
  chat.runOrder.forEach((id, i) => {
    const question = chat.runs[id]?.question;
    if (question) newest.set(question, i);
  });
  const last = chat.runOrder.length - 1;

  for (const id of chat.messageOrder) {
    if (position.has(id) || offBranch.has(id)) continue;
    const runId = chat.messages[id]?.runId;
    const run = runId ? chat.runs[runId] : undefined;
    if (!run || !ended(run) || ownRuns.has(run.id)) continue;
    const order = chat.runOrder.indexOf(run.id);
    const question = run.question;
    if (!question) {
      // Which question it answered is not known: only the newest run's, at the log's end.
      if (order !== last) hidden.add(id);
      continue;
    }
    const at = position.get(question);
    const next = at === undefined ? undefined : history[at + 1];
    const answered = next !== undefined && next.message.role === 'assistant';
    if (at === undefined || answered || newest.get(question) !== order) {
      hidden.add(id);
      continue;
    }
    under.set(question, id);
  }
  return { under, hidden };
}
