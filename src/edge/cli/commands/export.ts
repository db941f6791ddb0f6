// SPDX-License-Identifier: Apache-2.0
import { stringify } from 'yaml';
import { exportNodePool } from '../../../../rules/karpenter-export.js';
import { loadPolicies } from '../../../core/policy/load.js';
import type { NodePool } from '../../../core/cluster/types.js';
import { CliError, EXIT_FINDINGS, EXIT_OK, readText } from '../shared/io.js';
import { readPolicySources, reportDiagnostics } from '../shared/inputs.js';
import { parse, type Command } from './command.js';
import { policyToNodePoolDisruption } from '../../../../rules/karpenter-export.js';

const usage = `usage: kpol export [--base NODEPOOL.yaml] [--strict] FILE.kpol…

Prints karpenter.sh/v1 NodePools (YAML) carrying each policy's disruption settings. What
Karpenter cannot express (time zones with DST, freezes, pod windows, selective maintenance
windows, graceful expiration) is reported on stderr, never dropped silently; --strict exits 1
when anything could not be exported. --base keeps an existing NodePool's template; without it
the NodePools have no nodeClassRef or requirements, and a warning says so.`;

/**
 * A NodePool without these is refused by the API server (the CRD requires both): without
 * --base there is no template to keep, which the user must hear about before `kubectl apply`.
 */
function templateWarning(name: string, missing: readonly string[], base: string | undefined): string {
  const fields = missing.map((k) => `spec.template.spec.${k}`).join(' and ');
  const fix = base
    ? `add them to ${base}`
    : 'pass --base NODEPOOL.yaml (your NodePool) to keep its template, or copy spec.disruption into your NodePool';
  return (
    `kpol export: warning: NodePool ${name} has no ${fields}, which the NodePool CRD requires: ` +
    `the API server will reject it as printed; ${fix}`
  );
}

export const exportCommand: Command = {
  usage,
  async run(argv, io) {
    const { values, positionals } = parse(argv, { base: { type: 'string' }, strict: { type: 'boolean' } }, usage);
    if (positionals.length === 0) throw new CliError(`no files given\n\n${usage}`);
    const loaded = loadPolicies(readPolicySources(positionals));
    if (reportDiagnostics(loaded, io)) return EXIT_FINDINGS;
    let base: NodePool | undefined;
    if (values.base) {
      const { parse: parseYaml } = await import('yaml');
      base = parseYaml(readText(values.base)) as NodePool;
      if (base?.kind !== 'NodePool') throw new CliError(`${values.base}: not a NodePool`);
    }
    const docs: string[] = [];
    let findings = 0;
    for (const policy of loaded.policies) {
      for (const f of policyToNodePoolDisruption(policy).findings) {
        findings++;
        io.err(`${policy.file ?? ''}: policy ${policy.name}: ${f.feature}: ${f.message}`);
      }
      const pools = exportNodePool(policy, base);
      if (pools.length === 0)
        io.err(
          `${policy.file ?? ''}: policy ${policy.name}: warning: it selects NodePools by label, so ` +
            `there is no NodePool to write without --base NODEPOOL.yaml`,
        );
      for (const np of pools) {
        const missing = (['nodeClassRef', 'requirements'] as const).filter(
          (k) => np.spec.template?.spec?.[k] === undefined,
        );
        if (missing.length) io.err(templateWarning(np.metadata.name, missing, values.base));
        docs.push(stringify(np));
      }
    }
    io.out(docs.join('---\n'));
    return values.strict && findings > 0 ? EXIT_FINDINGS : EXIT_OK;
  },
};
