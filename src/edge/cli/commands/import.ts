// SPDX-License-Identifier: Apache-2.0
import { parseAllDocuments } from 'yaml';
import { formatSource } from '../../../../grammar/format.js';
import { nodePoolToPolicy } from '../../../../rules/karpenter-import.js';
import { policyToSource } from '../../../../rules/policy-source.js';
import type { NodePool } from '../../../core/cluster/types.js';
import { CliError, EXIT_FINDINGS, EXIT_OK, readText } from '../shared/io.js';
import { parse, type Command } from './command.js';

const usage = `usage: kpol import NODEPOOL.yaml…

Turns karpenter.sh/v1 NodePools (YAML or JSON, one or many documents, or a List) into .kpol
policies with the same meaning, printed on stdout. Problems the API server or Karpenter would
report are printed on stderr as NodePool/<name>: <field>: <message>; errors exit 1.`;

function nodePoolsIn(text: string, file: string): NodePool[] {
  const pools: NodePool[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length) {
      const e = doc.errors[0];
      const [line, col] = e.linePos?.[0] ? [e.linePos[0].line, e.linePos[0].col] : [1, 1];
      throw new CliError(`${file}:${line}:${col}: ${e.message.split('\n')[0]}`);
    }
    const value = doc.toJS() as { kind?: string; items?: unknown[] } | null;
    for (const obj of value?.kind === 'List' ? (value.items ?? []) : [value]) {
      const o = obj as NodePool | null;
      if (o && o.kind === 'NodePool') {
        if (o.apiVersion !== 'karpenter.sh/v1')
          throw new CliError(
            `${file}: NodePool ${o.metadata?.name ?? '?'}: apiVersion ${o.apiVersion} is not supported,` +
              ` convert it to karpenter.sh/v1 first`,
          );
        pools.push(o);
      }
    }
  }
  if (pools.length === 0) throw new CliError(`${file}: no karpenter.sh/v1 NodePool found`);
  return pools;
}

export const importCommand: Command = {
  usage,
  async run(argv, io) {
    const { positionals } = parse(argv, {}, usage);
    if (positionals.length === 0) throw new CliError(`no files given\n\n${usage}`);
    let exit = EXIT_OK;
    const out: string[] = [];
    for (const file of positionals) {
      for (const np of nodePoolsIn(readText(file), file)) {
        const { policy, diagnostics } = nodePoolToPolicy(np);
        for (const d of diagnostics) {
          io.err(`${file}: ${d.path}: ${d.severity}: ${d.message}`);
          if (d.severity === 'error') exit = EXIT_FINDINGS;
        }
        const source = policyToSource(policy);
        const formatted = formatSource(source);
        out.push(formatted.value ?? source);
      }
    }
    io.out(out.join('\n'));
    return exit;
  },
};
