// SPDX-License-Identifier: Apache-2.0
// The text a new policy starts from. A NodePool may be governed by one policy only (KPOL2012),
// so it names a NodePool no other policy governs; when every NodePool is governed already, it
// selects NodePools by a label none has yet, and says how to go on — so it never starts with an
// error.

/** `governedBy`: each NodePool of the cluster and the policy that governs it now (null: none). */
export function starterPolicy(name: string, governedBy: Readonly<Record<string, string | null>>): string {
  const pools = Object.keys(governedBy).sort();
  const free = pools.find((p) => governedBy[p] === null);
  if (free !== undefined || pools.length === 0)
    return `policy ${name} for nodepool ${free ?? 'default'} {\n  budget 10%\n}\n`;
  const owners = [...new Set(pools.map((p) => governedBy[p]))].join(', ');
  return [
    `# Every NodePool here is governed already (by ${owners}), and`,
    '# a NodePool may have one policy only: this one governs the NodePools',
    `# labelled team = "${name}" (none yet). Label one, or name NodePools`,
    `# that no other policy governs: policy ${name} for nodepool NAME`,
    `policy ${name} for nodepools where team = "${name}" {`,
    '  budget 10%',
    '}',
    '',
  ].join('\n');
}
