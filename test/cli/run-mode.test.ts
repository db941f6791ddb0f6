// SPDX-License-Identifier: Apache-2.0
// `kpol run --mode govern|standalone|auto` and the govern-only flags: parsing, the auto decision
// from the NodePool CRD, and the whole command against a small fake API server — standalone
// refusing another provider's NodeClaims, a forbidden CRD read, govern dispatched to
// run-govern.ts (replaced here by a spy: its body is govern mode's, not this file's subject).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { apiError } from '../../src/core/cluster/memory/errors.js';
import type { NodeClaim } from '../../src/core/cluster/types.js';
import {
  decideMode,
  detectMode,
  KPOL_CRD_LABEL,
  NODEPOOL_CRD_PATH,
  runModeFlags,
} from '../../src/edge/cli/shared/run-mode.js';
import { runCli } from './run-cli.js';

const governed = vi.hoisted(() => ({ calls: [] as unknown[] }));
vi.mock('../../src/edge/cli/commands/run-govern.js', () => ({
  runGoverned: async (o: unknown) => {
    governed.calls.push(o);
    return 0;
  },
}));

describe('runModeFlags', () => {
  it('defaults: auto, no dry run, fail closed after 2 minutes', () => {
    expect(runModeFlags({})).toEqual({ mode: 'auto', dryRun: false, failClosedAfterMs: 120_000, governOnly: [] });
  });

  it('takes the govern flags in Go duration syntax (or seconds), whole minutes from 1m', () => {
    expect(runModeFlags({ mode: 'govern', 'dry-run': true, 'fail-closed-after': '5m' })).toEqual({
      mode: 'govern',
      dryRun: true,
      failClosedAfterMs: 300_000,
      governOnly: ['--dry-run', '--fail-closed-after'],
    });
    expect(runModeFlags({ 'fail-closed-after': '1h' }).failClosedAfterMs).toBe(3_600_000);
    expect(runModeFlags({ 'fail-closed-after': '1m0s' }).failClosedAfterMs).toBe(60_000);
    expect(runModeFlags({ 'fail-closed-after': '120' }).failClosedAfterMs).toBe(120_000);
  });

  it.each([
    [{ mode: 'karpenter' }, /--mode takes govern, standalone or auto, not `karpenter`/],
    [{ 'fail-closed-after': 'soon' }, /--fail-closed-after takes a duration such as 2m or 5m, not `soon`/],
    [{ 'fail-closed-after': '30s' }, /--fail-closed-after takes whole minutes, at least 1m .* not `30s`/],
    [{ 'fail-closed-after': '90s' }, /whole minutes/],
    [{ 'fail-closed-after': '0' }, /whole minutes/],
    [
      { mode: 'standalone', 'dry-run': true },
      /--dry-run applies to govern mode only; with --mode standalone they mean nothing/,
    ],
    [{ mode: 'standalone', 'fail-closed-after': '2m' }, /--fail-closed-after applies to govern mode only/],
  ])('refuses %j', (values, message) => {
    expect(() => runModeFlags(values)).toThrow(message);
  });
});

const kpolCrd = {
  metadata: { name: 'nodepools.karpenter.sh', labels: { [KPOL_CRD_LABEL.key]: KPOL_CRD_LABEL.value } },
};
const karpenterCrd = {
  metadata: { name: 'nodepools.karpenter.sh', annotations: { 'controller-gen.kubebuilder.io/version': 'v0.17.2' } },
};

describe('the auto decision', () => {
  it("govern only on a NodePool CRD that is not kpol's own", () => {
    expect(decideMode(undefined).mode).toBe('standalone');
    expect(decideMode(kpolCrd).mode).toBe('standalone');
    expect(decideMode(karpenterCrd).mode).toBe('govern');
    expect(decideMode({ metadata: { labels: { [KPOL_CRD_LABEL.key]: 'Helm' } } }).mode).toBe('govern');
  });

  it('reads the CRD by name; 404 is no Karpenter, 403 asks for --mode, others fail clearly', async () => {
    const paths: string[] = [];
    const answering = (answer: () => unknown) => async (path: string) => {
      paths.push(path);
      return answer();
    };
    expect(
      (
        await detectMode(
          answering(() => karpenterCrd),
          'k',
        )
      ).mode,
    ).toBe('govern');
    expect(paths).toEqual([NODEPOOL_CRD_PATH]);
    expect(
      (
        await detectMode(
          answering(() => {
            throw apiError(404, 'NotFound', 'not found');
          }),
          'k',
        )
      ).mode,
    ).toBe('standalone');
    await expect(
      detectMode(
        answering(() => {
          throw apiError(403, 'Forbidden', 'forbidden');
        }),
        'k',
      ),
    ).rejects.toThrow(/forbidden \(403\): give --mode govern or --mode standalone/);
    await expect(
      detectMode(
        answering(() => {
          throw apiError(503, 'ServiceUnavailable', 'cannot reach the API server');
        }),
        'k',
      ),
    ).rejects.toThrow(/k: reading the karpenter.sh NodePool CRD for --mode auto: cannot reach/);
  });
});

/** A foreign NodeClaim as a real Karpenter on AWS leaves it. */
const awsClaim = (i: number): NodeClaim => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodeClaim',
  metadata: { name: `default-${String(i).padStart(2, '0')}` },
  spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [] },
  status: { providerID: `aws:///us-west-2a/i-0123456789abcde${i.toString(16).padStart(2, '0')}` },
});

describe('kpol run --kubeconfig against a fake API server', () => {
  let server: Server;
  let dir: string;
  let kubeconfig: string;
  let crd: { status: number; body: unknown };
  let claims: NodeClaim[];
  const requests: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      requests.push(`${req.method} ${path}`);
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (path === NODEPOOL_CRD_PATH) return answer(crd.status, crd.body);
      if (path === '/apis/karpenter.sh/v1/nodeclaims')
        return answer(200, {
          apiVersion: 'karpenter.sh/v1',
          kind: 'NodeClaimList',
          metadata: { resourceVersion: '1' },
          items: claims,
        });
      return answer(404, { kind: 'Status', code: 404, reason: 'NotFound', message: `${path} not found` });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    dir = mkdtempSync(join(tmpdir(), 'kpol-run-mode-'));
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'fake',
        clusters: [
          {
            name: 'fake',
            cluster: {
              server: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
              'insecure-skip-tls-verify': true,
            },
          },
        ],
        users: [{ name: 'u', user: { token: 't' } }],
        contexts: [{ name: 'fake', context: { cluster: 'fake', user: 'u' } }],
      }),
    );
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    crd = { status: 200, body: kpolCrd };
    claims = [];
    requests.length = 0;
    governed.calls.length = 0;
  });

  it(
    "standalone refuses another provider's NodeClaims: named with their provider IDs, 10 at " +
      'most, exit 1, no stack trace',
    async () => {
      claims = Array.from({ length: 12 }, (_, i) => awsClaim(i));
      const r = await runCli('run', '--kubeconfig', kubeconfig, '--mode', 'standalone', '--port', '0');
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        'standalone mode acts only on machines its simulated cloud launches, and 12 NodeClaims ' +
          'were launched or created by another cloud provider',
      );
      expect(r.stderr).toContain(
        'NodeClaim/default-00 (aws:///us-west-2a/i-0123456789abcde00), NodeClaim/default-01 ' +
          '(aws:///us-west-2a/i-0123456789abcde01)',
      );
      expect(r.stderr).toContain(
        'NodeClaim/default-09 (aws:///us-west-2a/i-0123456789abcde09) and 2 more. If the cluster ' +
          'runs Karpenter, use --mode govern.',
      );
      expect(r.stderr).not.toContain('default-10');
      expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
      expect(requests).not.toContain(`GET ${NODEPOOL_CRD_PATH}`); // an explicit mode asks nothing
    },
  );

  it("a NodeClaim not launched yet is another provider's unless kpol made it", async () => {
    const fresh: NodeClaim = { ...awsClaim(0), metadata: { name: 'fresh' }, status: undefined };
    claims = [
      fresh,
      {
        ...awsClaim(1),
        metadata: { name: 'kpols', annotations: { 'kpol.dev/creation-reason': 'provisioning' } },
        status: undefined,
      },
    ];
    const r = await runCli('run', '--kubeconfig', kubeconfig, '--mode', 'standalone', '--port', '0');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      '1 NodeClaim was launched or created by another cloud provider: NodeClaim/fresh (not launched).',
    );
  });

  it("auto on kpol's own CRD runs standalone (and refuses the same way)", async () => {
    claims = [awsClaim(1)];
    const r = await runCli('run', '--kubeconfig', kubeconfig, '--port', '0');
    expect(r.stderr).toContain(
      "kpol: --mode auto chose standalone: the karpenter.sh NodePool CRD is kpol's own (label " +
        'app.kubernetes.io/managed-by=kpol)',
    );
    expect(r.stderr).toContain('NodeClaim/default-01 (aws:///us-west-2a/i-0123456789abcde01)');
    expect(r.code).toBe(1);
    expect(governed.calls).toEqual([]);
  });

  it('auto choosing standalone refuses the govern-only flags', async () => {
    const r = await runCli('run', '--kubeconfig', kubeconfig, '--port', '0', '--dry-run');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /--dry-run applies to govern mode only; --mode auto chose standalone \(.*\); give --mode govern to govern/,
    );
  });

  it("auto on Karpenter's CRD governs, with the govern flags passed on", async () => {
    crd = { status: 200, body: karpenterCrd };
    const r = await runCli('run', '--kubeconfig', kubeconfig, '--port', '0', '--dry-run', '--fail-closed-after', '3m');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('kpol: --mode auto chose govern');
    expect(governed.calls).toEqual([
      expect.objectContaining({ kubeconfig, dryRun: true, failClosedAfterMs: 180_000, port: 0, policies: [] }),
    ]);
    expect(requests).toEqual([`GET ${NODEPOOL_CRD_PATH}`]); // nothing else before govern mode takes over
  });

  it('--mode govern goes to govern mode without reading the CRD', async () => {
    const r = await runCli('run', '--kubeconfig', kubeconfig, '--mode', 'govern');
    expect(r.code).toBe(0);
    expect(governed.calls).toEqual([expect.objectContaining({ dryRun: false, failClosedAfterMs: 120_000 })]);
    expect(requests).toEqual([]);
  });

  it("govern mode refuses the simulated cloud's timings rather than ignoring them", async () => {
    const r = await runCli('run', '--kubeconfig', kubeconfig, '--mode', 'govern', '--launch-latency', '2s');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      '--launch-latency and --termination-delay set the simulated cloud of standalone mode; govern mode has none',
    );
    expect(governed.calls).toEqual([]);
  });

  it('auto with the CRD read forbidden asks for --mode (exit 2)', async () => {
    crd = {
      status: 403,
      body: {
        kind: 'Status',
        code: 403,
        reason: 'Forbidden',
        message:
          'customresourcedefinitions.apiextensions.k8s.io "nodepools.karpenter.sh" is forbidden: ' +
          'User "u" cannot get resource',
      },
    };
    const r = await runCli('run', '--kubeconfig', kubeconfig, '--port', '0');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('that read is forbidden (403): give --mode govern or --mode standalone');
    expect(governed.calls).toEqual([]);
  });

  it('the mode flags need a real cluster', async () => {
    for (const args of [['--mode', 'govern'], ['--dry-run'], ['--fail-closed-after', '2m']]) {
      const r = await runCli('run', ...args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/applies to a real cluster; give --kubeconfig or --in-cluster too/);
    }
  });
});
