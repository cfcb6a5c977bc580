import type { ClientChanged } from '@loan/contracts';
import type { InboundMessage, Logger } from '@loan/runtime';
import type { ClientSettingsRepository } from '../../data-access/clientSettings';

/** `loan.gateway.clients` → the client settings projection (newest version wins). */
export function createProjectClientHandler(deps: { settings: ClientSettingsRepository; logger: Logger }) {
  return async function onClientChanged(message: InboundMessage): Promise<void> {
    const change = message.value as ClientChanged;
    const applied = await deps.settings.apply(change);
    deps.logger.debug({ clientId: change.clientId, version: change.version, applied }, 'client settings projected');
  };
}
