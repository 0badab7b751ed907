/**
 * No coordination: one process owns every target (never "taken": nobody else
 * writes), and alert state and the drift history live in its memory. What watch does without
 * --coordination-env.
 */
import { MemoryDriftHistory } from '../drift-history.js';
import { type Claim, type Coordination, MemoryAlertState } from './port.js';

export function singleProcess(): Coordination {
  const none = new Set<string>();
  return {
    id: 'single',
    alerts: new MemoryAlertState(),
    driftHistory: new MemoryDriftHistory(),
    async claim(targets): Promise<Claim> {
      return { owned: new Set(targets), taken: none, replicas: 1 };
    },
    holds: async () => true,
    close: async () => {},
  };
}
