/** A realistic plan touching every renderer feature, built through the real planner. */
import type { Plan, PlanPolicy } from '../../src/model/plan.js';
import type { DesiredWebsite, LiveWebsite } from '../../src/model/website.js';
import { plan } from '../../src/plan/planner.js';
import { desired, live, policy } from '../plan/builders.js';

export const PASSWORD = 'pw-Tr0ub4dor&3';

export const desiredSites: DesiredWebsite[] = [
  desired('blog.example.com', { privacy: 'public', excludeIps: ['10.0.0.2', '10.0.0.3', '192.168.1.1'] }),
  desired('shop.example.com', { privacy: 'password', email: true }, { password: PASSWORD }),
  desired('docs.example.com', { privacy: 'public', favorite: true, email: true }, { ignoreChanges: ['email'] }),
  desired('new.example.com', { privacy: 'public', excludeParams: ['utm_source', 'ref'] }),
  desired('status.example.com', { privacy: 'public' }),
];

export const liveSites: LiveWebsite[] = [
  live(3, 'blog.example.com', { privacy: 1, excludeIps: '10.0.0.1\r\n10.0.0.2\r\n192.168.1.1' }),
  live(4, 'shop.example.com', { privacy: 1, email: 1 }, { hasPassword: false }),
  live(5, 'docs.example.com', { privacy: 0, favorite: true, email: 0 }),
  live(6, 'status.example.com', { privacy: 0 }),
  live(12, 'old.example.com', { privacy: 1 }, { createdAt: '2021-03-04T05:06:07.000000Z' }),
  live(13, 'legacy.example.com', {}, { createdAt: '2019-01-02T00:00:00.000000Z' }),
  live(14, 'intranet.example.com'),
  live(20, 'unrelated.org'),
];

export const fixturePolicy: PlanPolicy = policy({
  prune: true,
  manage: { include: ['*.example.com'], exclude: [] },
  protect: ['intranet.*'],
  limits: { maxDeletes: 1, maxChangePercent: 90 },
});

export function fixturePlan(): Plan {
  return plan(desiredSites, liveSites, fixturePolicy);
}
