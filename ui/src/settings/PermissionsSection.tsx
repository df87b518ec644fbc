import { PermissionsPage } from '../permissions/PermissionsPage';
import type { TesseraClient } from '../transport/client';

export interface PermissionsSectionProps {
  client: TesseraClient | null;
}

/** The Permissions section of Settings: the permissions page, under the section's own heading. */
export function PermissionsSection({ client }: PermissionsSectionProps) {
  return <PermissionsPage client={client} heading={false} />;
}
