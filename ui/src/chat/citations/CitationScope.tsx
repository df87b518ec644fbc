/**
 * The citations of one answer: which passages the run that wrote it was given, asked of the
 * engine (`GET /v1/runs/{id}/context`) once the run has ended and the answer has a citation,
 * and kept for the page's life (an answer drawn again, or scrolled back into view, asks no more).
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useInspectorClient } from '../../inspector/ContextInspector';
import { getRunContext } from '../../permissions/api';
import type { TesseraClient } from '../../transport/client';
import { findPassage, passagesGiven, type Passage } from './verify';
import type { Citation } from './parse';

/**
 * `checking`: the run goes on, or its passages are on their way. `ready`: known. `unknown`: no
 * run to ask (an answer stored before this page knew its run), or the engine could not say.
 */
export type ScopeStatus = 'checking' | 'ready' | 'unknown';

export interface CitationScopeValue {
  status: ScopeStatus;
  passages: readonly Passage[];
  /** A chip is on the page: the passages are wanted. */
  want: () => void;
}

const Scope = createContext<CitationScopeValue | null>(null);

/** Whether the Markdown drawn here marks its citations (answers do; nothing else does). */
export const CitationsMarked = createContext(false);

export function useCitationScope(): CitationScopeValue | null {
  return useContext(Scope);
}

/** How a chip shows its citation. */
export type ChipState = 'verified' | 'unverified' | 'checking' | 'unchecked';

/** What a chip shows for `citation` in `scope`, and the passage it names when it was given. */
export function chipState(citation: Citation, scope: Pick<CitationScopeValue, 'status' | 'passages'> | null): { state: ChipState; passage: Passage | null } {
  if (!scope || scope.status === 'unknown') return { state: 'unchecked', passage: null };
  if (scope.status === 'checking') return { state: 'checking', passage: null };
  const passage = findPassage(citation, scope.passages);
  return { state: passage ? 'verified' : 'unverified', passage };
}

const asked = new WeakMap<TesseraClient, Map<string, Promise<Passage[]>>>();

/** The passages run `runId` was given, asked once per client and run (a failure is asked again later). */
export function runPassages(client: TesseraClient, runId: string): Promise<Passage[]> {
  let runs = asked.get(client);
  if (!runs) {
    runs = new Map();
    asked.set(client, runs);
  }
  let found = runs.get(runId);
  if (!found) {
    found = getRunContext(client, runId).then(passagesGiven);
    runs.set(runId, found);
    found.catch(() => runs.delete(runId));
  }
  return found;
}

/**
 * Marks the citations of the Markdown inside (an answer's text) and says which were given to
 * run `runId`. `ended`: the run is over (its passages, the hits of its searches too, are all
 * known).
 */
export function CitationScope({ runId, ended, children }: { runId: string | null; ended: boolean; children: ReactNode }) {
  const client = useInspectorClient();
  const [wanted, setWanted] = useState(false);
  const want = useCallback(() => setWanted(true), []);
  const [known, setKnown] = useState<{ runId: string; passages: Passage[] | null } | null>(null);

  useEffect(() => {
    if (!wanted || !ended || !runId || !client) return undefined;
    let current = true;
    runPassages(client, runId).then(
      (passages) => {
        if (current) setKnown({ runId, passages });
      },
      () => {
        if (current) setKnown({ runId, passages: null });
      },
    );
    return () => {
      current = false;
    };
  }, [wanted, ended, runId, client]);

  const value = useMemo<CitationScopeValue>(() => {
    if (!runId || !client) return { status: 'unknown', passages: [], want };
    if (!ended || known?.runId !== runId) return { status: 'checking', passages: [], want };
    return known.passages ? { status: 'ready', passages: known.passages, want } : { status: 'unknown', passages: [], want };
  }, [runId, client, ended, known, want]);

  return (
    <CitationsMarked.Provider value>
      <Scope.Provider value={value}>{children}</Scope.Provider>
    </CitationsMarked.Provider>
  );
}
