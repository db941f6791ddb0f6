// SPDX-License-Identifier: Apache-2.0
// Labels an instance type and an offering define (Karpenter's well-known labels; kpol.dev/
// stands where the AWS provider writes karpenter.k8s.aws/). A requirement on one of these keys
// constrains which offerings may launch; a requirement on any other key is a custom label the
// node simply carries.
import { LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE, LABEL_ZONE } from '../../core/cluster/types.js';

export { LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE, LABEL_ZONE };
export const LABEL_ARCH = 'kubernetes.io/arch';
export const LABEL_OS = 'kubernetes.io/os';
export const LABEL_INSTANCE_FAMILY = 'kpol.dev/instance-family';
export const LABEL_INSTANCE_CATEGORY = 'kpol.dev/instance-category';
export const LABEL_INSTANCE_GENERATION = 'kpol.dev/instance-generation';
export const LABEL_INSTANCE_SIZE = 'kpol.dev/instance-size';
export const LABEL_INSTANCE_CPU = 'kpol.dev/instance-cpu';
export const LABEL_INSTANCE_MEMORY = 'kpol.dev/instance-memory'; // MiB
export const LABEL_INSTANCE_GPU_COUNT = 'kpol.dev/instance-gpu-count';
export const LABEL_INSTANCE_GPU_NAME = 'kpol.dev/instance-gpu-name';
export const LABEL_INSTANCE_GPU_MANUFACTURER = 'kpol.dev/instance-gpu-manufacturer';
export const RESOURCE_GPU = 'nvidia.com/gpu';

export const WELL_KNOWN_LABELS: ReadonlySet<string> = new Set([
  LABEL_INSTANCE_TYPE,
  LABEL_CAPACITY_TYPE,
  LABEL_ZONE,
  LABEL_ARCH,
  LABEL_OS,
  LABEL_INSTANCE_FAMILY,
  LABEL_INSTANCE_CATEGORY,
  LABEL_INSTANCE_GENERATION,
  LABEL_INSTANCE_SIZE,
  LABEL_INSTANCE_CPU,
  LABEL_INSTANCE_MEMORY,
  LABEL_INSTANCE_GPU_COUNT,
  LABEL_INSTANCE_GPU_NAME,
  LABEL_INSTANCE_GPU_MANUFACTURER,
]);
