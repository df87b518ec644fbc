import { useTranslation } from 'react-i18next';
import type { TesseraClient } from '../transport/client';

export interface PermissionsSectionProps {
  client: TesseraClient | null;
}

/**
 * The Permissions section of Settings: the place of the permissions page (ui/src/permissions,
 * reviewing and revoking consent grants), which renders here once it exists.
 */
export function PermissionsSection(_props: PermissionsSectionProps) {
  const { t } = useTranslation();
  return <p className="settings-hint">{t('settings.permissionsPending')}</p>;
}
