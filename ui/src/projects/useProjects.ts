import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TesseraClient } from '../transport/client';
import { ProjectsApi, projectErrorText, type Project } from './api';

/**
 * The projects as the engine lists them, read when the client is there and again on `reload`.
 * A failure leaves the list as it was (empty at first) and says why in `error`.
 */
export function useProjects(client: TesseraClient | null) {
  const { t } = useTranslation();
  const api = useMemo(() => (client ? ProjectsApi.of(client) : null), [client]);
  const [projects, setProjects] = useState<Project[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  const reload = useCallback(async () => {
    if (!api) return;
    try {
      setProjects(await api.list());
      setError(null);
    } catch (err) {
      setError(projectErrorText(t, err));
    }
  }, [api, t]);

  useEffect(() => {
    void reload();
  }, [reload]);

  return { api, projects, error, reload };
}
