/**
 * The fleet simulator as a child process of a benchmark (processes.ts):
 * starts the fleet, writes its websites.yaml into the directory given, sends
 * the keys' variables, then answers the parent: drift on N random
 * installations (site 0 of each), its counts, stop.
 */
import { fleetConfig } from './config.js';
import { startFleet } from './simulator.js';

const options = JSON.parse(process.argv[2] ?? '{}') as {
  dir: string;
  installations: number;
  websites: number;
  latencyMs: number;
};
const fleet = await startFleet(options);
const env = fleetConfig(fleet, options.dir, options.websites);
process.send?.({ env });
process.on('message', async (message: { drift?: number; stats?: boolean; stop?: boolean }) => {
  if (message.drift !== undefined) {
    const chosen = new Set<number>();
    while (chosen.size < Math.min(message.drift, options.installations))
      chosen.add(Math.floor(Math.random() * options.installations));
    for (const installation of chosen) await fleet.drift(installation, [0]);
    process.send?.([...chosen]);
  } else if (message.stats) {
    process.send?.({
      listings: fleet.listings,
      writes: fleet.writes.filter((write) => write.status < 400).length,
      doubleWrites: fleet.doubleWrites(),
      throttled: fleet.throttled,
    });
  } else if (message.stop) {
    await fleet.close();
    process.send?.('stopped', () => process.exit(0));
  }
});
