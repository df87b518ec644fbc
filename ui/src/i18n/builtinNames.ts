import type { TFunction } from 'i18next';

/**
 * The built-in agents' titles as the engine ships them (English), by the built-in's name. A
 * title still equal to its built-in one is Tessera's own words and is shown translated; one the
 * person changed is theirs and is shown as written.
 */
const BUILTIN_TITLES: Record<string, string> = {
  default: 'Assistant',
  researcher: 'Researcher',
  planner: 'Planner',
};

/** The title to show for an agent profile or specialist (`name` its id, `title` as stored). */
export function agentTitle(t: TFunction, name: string | undefined, title: string | undefined): string {
  const shown = title || name || '';
  for (const [id, builtin] of Object.entries(BUILTIN_TITLES)) {
    if (shown === builtin && (!name || name === id || name === builtin)) return t(`agents.title${id[0]!.toUpperCase()}${id.slice(1)}` as 'agents.titleDefault');
  }
  return shown;
}
