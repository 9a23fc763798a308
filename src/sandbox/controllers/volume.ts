/**
 * The simulated volume provisioner and binder: a PersistentVolumeClaim gets a PersistentVolume
 * (`pvc-<uid>`, the requested size, a hostPath nobody mounts) and both become Bound; the volume goes with
 * its claim (reclaim policy Delete).
 */
import type { StoreEvent } from '../store.js';
import { TKEY, isTerminating, key, splitKey, type Controller, type Runtime } from './runtime.js';

const MANAGER = 'kube-controller-manager';
const PROVISIONER = 'sandbox.addon-operator.io/hostpath';

export function volumeController(): Controller {
  return {
    name: 'volume',
    watches: {
      [TKEY.pvcs]: (ev: StoreEvent, rt: Runtime) => {
        if (ev.type !== 'DELETED') return key(ev.ns, ev.name);
        const vol = rt.objectOf(ev).spec?.volumeName;
        return vol ? `pv:${vol}` : undefined;
      },
    },
    resync: [TKEY.pvcs],
    reconcile(k: string, rt: Runtime) {
      if (k.startsWith('pv:')) {
        const pv = rt.get(TKEY.pvs, '', k.slice(3));
        const ref = pv?.spec?.claimRef;
        if (pv && pv.spec?.persistentVolumeReclaimPolicy === 'Delete' && !rt.get(TKEY.pvcs, ref?.namespace ?? '', ref?.name ?? '')) {
          rt.remove(TKEY.pvs, '', pv.metadata.name, MANAGER);
        }
        return;
      }
      const [ns, name] = splitKey(k);
      const pvc = rt.get(TKEY.pvcs, ns, name);
      if (!pvc || isTerminating(pvc) || pvc.status?.phase === 'Bound') return;
      const size = pvc.spec?.resources?.requests?.storage ?? '1Gi';
      const accessModes = pvc.spec?.accessModes ?? ['ReadWriteOnce'];
      const pvName = pvc.spec?.volumeName || `pvc-${pvc.metadata.uid}`;
      let pv = rt.get(TKEY.pvs, '', pvName);
      if (!pv) {
        pv = rt.create(
          TKEY.pvs,
          {
            apiVersion: 'v1',
            kind: 'PersistentVolume',
            metadata: { name: pvName, annotations: { 'pv.kubernetes.io/provisioned-by': PROVISIONER } },
            spec: {
              capacity: { storage: size },
              accessModes,
              persistentVolumeReclaimPolicy: 'Delete',
              ...(pvc.spec?.storageClassName ? { storageClassName: pvc.spec.storageClassName } : {}),
              volumeMode: pvc.spec?.volumeMode ?? 'Filesystem',
              claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', name, namespace: ns, uid: pvc.metadata.uid, resourceVersion: pvc.metadata.resourceVersion },
              hostPath: { path: `/var/lib/addon-operator-sandbox/${pvName}`, type: '' },
            },
          },
          MANAGER,
        );
        pv.status = { phase: 'Bound' };
        rt.updateStatus(TKEY.pvs, pv, MANAGER);
      }
      if (pvc.spec?.volumeName !== pvName || pvc.metadata.annotations?.['pv.kubernetes.io/bind-completed'] !== 'yes') {
        pvc.spec = { ...(pvc.spec ?? {}), volumeName: pvName };
        pvc.metadata.annotations = {
          ...(pvc.metadata.annotations ?? {}),
          'pv.kubernetes.io/bind-completed': 'yes',
          'pv.kubernetes.io/bound-by-controller': 'yes',
          'volume.beta.kubernetes.io/storage-provisioner': PROVISIONER,
          'volume.kubernetes.io/storage-provisioner': PROVISIONER,
        };
        rt.update(TKEY.pvcs, pvc, MANAGER);
      }
      const cur = rt.get(TKEY.pvcs, ns, name);
      if (!cur) return;
      cur.status = { phase: 'Bound', accessModes, capacity: { storage: size } };
      rt.updateStatus(TKEY.pvcs, cur, MANAGER);
    },
  };
}

