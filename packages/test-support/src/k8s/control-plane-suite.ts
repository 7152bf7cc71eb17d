/**
 * @module A suite's control plane in one line: `useControlPlane(options)` registers, where it is
 * called (a file's top level or a `describe`), a `beforeAll` that makes the certificates and
 * starts the double, and an `afterAll` that closes it and removes them. Hooks the suite registers
 * after the call run after the double is up, and their `afterAll` before it closes.
 */
import { afterAll, beforeAll } from 'vitest';
import { makeCertificates, type TestCertificates } from './certificates.js';
import {
  type ControlPlaneDouble,
  type ControlPlaneOptions,
  startControlPlane,
} from './control-plane-double.js';

export interface ControlPlaneSuite {
  /** The suite's certificates; read them inside a test or a later hook. */
  readonly certs: TestCertificates;
  /** The suite's double, started with `certs`; read it inside a test or a later hook. */
  readonly plane: ControlPlaneDouble;
}

/** Certificates and a control-plane double for the calling suite, cleaned up after it. */
export function useControlPlane(options: ControlPlaneOptions = {}): ControlPlaneSuite {
  let certs: TestCertificates | undefined;
  let plane: ControlPlaneDouble | undefined;
  beforeAll(async () => {
    certs = makeCertificates();
    plane = await startControlPlane(certs, options);
  });
  afterAll(async () => {
    await plane?.close();
    certs?.cleanup();
  });
  const started = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) {
      throw new Error(
        `useControlPlane: ${name} is made in beforeAll; read it inside a test or a later hook`,
      );
    }
    return value;
  };
  return {
    get certs() {
      return started(certs, 'certs');
    },
    get plane() {
      return started(plane, 'plane');
    },
  };
}
