import type { ClientChanged } from '@loan/contracts';
import type { InboundMessage, Logger } from '@loan/runtime';
import type { EndpointRepository } from '../../data-access/endpointRepository';

/** `loan.gateway.clients` → the client endpoints projection (newest version wins). */
export function createProjectClientHandler(deps: { endpoints: EndpointRepository; logger: Logger }) {
  return async function onClientChanged(message: InboundMessage): Promise<void> {
    const change = message.value as ClientChanged;
    const applied = await deps.endpoints.apply(change);
    deps.logger.debug({ clientId: change.clientId, version: change.version, applied }, 'client endpoint projected');
  };
}
