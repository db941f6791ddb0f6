// SPDX-License-Identifier: Apache-2.0
// The generated cluster (generate.ts) as a real API server returns it to a list: every Pod and
// Node carries what kube-apiserver, the kubelet and the scheduler write and kpol never reads —
// managedFields, the service-account volume, images, env, ports, probes, container statuses, a
// Node's image list and nodeInfo. A typical pod of a real cluster is 4–8 KB of JSON; these are ~5 KB.
import type { KubeObject } from '../../src/core/cluster/types.js';

const managed = (manager: string, operation: string, time: string, fields: Record<string, unknown>) => ({
  manager,
  operation,
  apiVersion: 'v1',
  time,
  fieldsType: 'FieldsV1',
  fieldsV1: fields,
});

function podManagedFields(o: Record<string, any>): unknown[] {
  const labels = Object.fromEntries(Object.keys(o.metadata.labels ?? {}).map((k) => [`f:${k}`, {}]));
  return [
    managed('kube-controller-manager', 'Update', o.metadata.creationTimestamp, {
      'f:metadata': {
        'f:generateName': {},
        'f:labels': { '.': {}, ...labels },
        'f:ownerReferences': { '.': {}, [`k:{"uid":"${o.metadata.ownerReferences?.[0]?.uid ?? ''}"}`]: {} },
      },
      'f:spec': {
        'f:containers': {
          'k:{"name":"main"}': {
            '.': {},
            'f:env': { '.': {}, 'k:{"name":"LOG_LEVEL"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
            'f:image': {},
            'f:imagePullPolicy': {},
            'f:name': {},
            'f:ports': { '.': {}, 'k:{"containerPort":8080,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
            'f:resources': { '.': {}, 'f:requests': { '.': {}, 'f:cpu': {}, 'f:memory': {} } },
            'f:terminationMessagePath': {},
            'f:terminationMessagePolicy': {},
          },
        },
        'f:dnsPolicy': {},
        'f:enableServiceLinks': {},
        'f:restartPolicy': {},
        'f:schedulerName': {},
        'f:securityContext': {},
        'f:terminationGracePeriodSeconds': {},
      },
    }),
    managed('kubelet', 'Update', o.metadata.creationTimestamp, {
      'f:status': {
        'f:conditions': {
          'k:{"type":"ContainersReady"}': {
            '.': {},
            'f:lastProbeTime': {},
            'f:lastTransitionTime': {},
            'f:status': {},
          },
          'k:{"type":"Initialized"}': { '.': {}, 'f:lastProbeTime': {}, 'f:lastTransitionTime': {}, 'f:status': {} },
          'k:{"type":"Ready"}': { '.': {}, 'f:lastProbeTime': {}, 'f:lastTransitionTime': {}, 'f:status': {} },
        },
        'f:containerStatuses': {},
        'f:hostIP': {},
        'f:hostIPs': {},
        'f:phase': {},
        'f:podIP': {},
        'f:podIPs': { '.': {}, 'k:{"ip":"10.0.0.1"}': { '.': {}, 'f:ip': {} } },
        'f:startTime': {},
      },
    }),
  ];
}

/** A pod as the API server stores it once scheduled and running. */
function dressPod(pod: Record<string, any>, n: number): Record<string, any> {
  const ip = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  const t = pod.metadata.creationTimestamp;
  const container = pod.spec.containers[0];
  return {
    ...pod,
    metadata: {
      ...pod.metadata,
      generateName: `${pod.metadata.name.replace(/-[^-]+$/, '')}-`,
      resourceVersion: String(1000 + n),
      managedFields: podManagedFields(pod),
    },
    spec: {
      ...pod.spec,
      volumes: [
        {
          name: `kube-api-access-${n.toString(36).padStart(5, 'x')}`,
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
              {
                downwardAPI: {
                  items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
                },
              },
            ],
          },
        },
      ],
      containers: [
        {
          ...container,
          image: `registry.example.com/team/${pod.metadata.labels?.app ?? 'app'}:1.4.2`,
          imagePullPolicy: 'IfNotPresent',
          env: [{ name: 'LOG_LEVEL', value: 'info' }],
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          readinessProbe: { httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP' }, periodSeconds: 10 },
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          volumeMounts: [
            {
              name: `kube-api-access-${n.toString(36).padStart(5, 'x')}`,
              readOnly: true,
              mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
            },
          ],
        },
      ],
      dnsPolicy: 'ClusterFirst',
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
      priority: 0,
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
      securityContext: {},
      serviceAccount: 'default',
      serviceAccountName: 'default',
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
    },
    status: {
      ...pod.status,
      conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map(
        (type) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: t }),
      ),
      hostIP: '192.168.0.10',
      hostIPs: [{ ip: '192.168.0.10' }],
      podIP: ip,
      podIPs: [{ ip }],
      qosClass: 'Burstable',
      containerStatuses: [
        {
          name: 'main',
          state: { running: { startedAt: t } },
          lastState: {},
          ready: true,
          restartCount: 0,
          image: `registry.example.com/team/${pod.metadata.labels?.app ?? 'app'}:1.4.2`,
          imageID: `registry.example.com/team/app@sha256:${(n * 2654435761).toString(16).padStart(64, '0')}`,
          containerID: `containerd://${(n * 40503).toString(16).padStart(64, '0')}`,
          started: true,
        },
      ],
    },
  };
}

/** A node as the kubelet reports it: images, nodeInfo, addresses, and the managedFields of three writers. */
function dressNode(node: Record<string, any>, n: number): Record<string, any> {
  return {
    ...node,
    metadata: {
      ...node.metadata,
      resourceVersion: String(500 + n),
      annotations: {
        ...node.metadata.annotations,
        'alpha.kubernetes.io/provided-node-ip': '192.168.0.10',
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
      },
      managedFields: ['kubelet', 'karpenter', 'kube-controller-manager'].map((m) =>
        managed(m, 'Update', node.metadata.creationTimestamp, {
          'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/arch': {}, 'f:kubernetes.io/os': {} } },
          'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {} } }, 'f:images': {} },
        }),
      ),
    },
    spec: { ...node.spec, podCIDR: `10.${n >> 8}.${n & 255}.0/24`, podCIDRs: [`10.${n >> 8}.${n & 255}.0/24`] },
    status: {
      ...node.status,
      addresses: [
        { type: 'InternalIP', address: '192.168.0.10' },
        { type: 'Hostname', address: node.metadata.name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        architecture: 'amd64',
        bootID: `boot-${n}`,
        containerRuntimeVersion: 'containerd://1.7.27',
        kernelVersion: '6.1.132-147.221.amzn2023.x86_64',
        kubeProxyVersion: 'v1.33.1',
        kubeletVersion: 'v1.33.1',
        machineID: `machine-${n}`,
        operatingSystem: 'linux',
        osImage: 'Amazon Linux 2023.7.20250512',
        systemUUID: `ec2-${n}`,
      },
      images: Array.from({ length: 20 }, (_, i) => ({
        names: [`registry.example.com/team/app-${i}@sha256:${i.toString(16).padStart(64, 'a')}`, `app-${i}:1.4.2`],
        sizeBytes: 50_000_000 + i * 1_000_003,
      })),
    },
  };
}

/** Pods and Nodes dressed as the API server returns them (`first` numbers their IPs and ids); others as they are. */
export function asListed(objects: readonly KubeObject[], first = 0): Record<string, any>[] {
  let n = first;
  return objects.map((o) => {
    const x = o as unknown as Record<string, any>;
    if (o.kind === 'Pod') return dressPod(x, n++);
    if (o.kind === 'Node') return dressNode(x, n++);
    return x;
  });
}
