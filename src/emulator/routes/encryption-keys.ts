// Encryption keys: endpoints of the real service beyond the interface document.
import { createPublicKey } from 'node:crypto';
import { created, noContent } from '../reply.js';
import type { RouteDef } from '../routing.js';
import { isoMicro } from '../util.js';
import { Validation } from '../validate.js';

const REQUIRED_BITS = 4096;

/** Bits of an RSA public key in PEM, or undefined when the text is not one. */
function rsaBits(pem: string): number | undefined {
  try {
    const key = createPublicKey(pem);
    return key.asymmetricKeyType === 'rsa' ? key.asymmetricKeyDetails?.modulusLength : undefined;
  } catch {
    return undefined;
  }
}

export const encryptionKeyRoutes: RouteDef[] = [
  {
    method: 'POST',
    path: '/v1/encryption-keys',
    handler: ({ rt, input }) => {
      const v = new Validation(input);
      const name = v.string('name', { required: true, max: 255 });
      const publicKey = v.string('public_key', { required: true });
      if (publicKey !== undefined) {
        const bits = rsaBits(publicKey);
        if (bits === undefined) v.fail('public_key', 'The public key field must be a PEM-encoded RSA public key.');
        else if (bits !== REQUIRED_BITS) v.fail('public_key', `The public key field must be a ${REQUIRED_BITS}-bit RSA key.`);
      }
      v.check();
      const now = rt.now();
      const key = rt.store.encryptionKeys.insert({
        id: rt.store.encryptionKeys.nextId(),
        name: name!,
        public_key: publicKey!,
        created_at: now,
      });
      // The real answer shows name and public_key; the id is added so the key can be attached and deleted.
      return created({ id: key.id, name: key.name, public_key: key.public_key, created_at: isoMicro(key.created_at) });
    },
  },
  {
    method: 'DELETE',
    path: '/v1/encryption-keys/{id}',
    handler: ({ rt, params }) => {
      const key = rt.store.encryptionKeys.require(params.id!);
      rt.store.encryptionKeys.remove(key);
      for (const job of rt.store.jobs.rows) {
        if (job.encryption_key_id === key.id) rt.store.jobs.patch(job, { encryption_key_id: null });
      }
      return noContent();
    },
  },
];
