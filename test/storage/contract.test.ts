/** The storage contract suite on every SQL driver whose service is configured (SQLite always). */
import { allDrivers, openTestDriver } from '../helpers/drivers.ts';
import { defineStorageContract } from './contract-suite.ts';

for (const kind of allDrivers()) {
  defineStorageContract(kind, () => openTestDriver(kind), { serialWriters: kind === 'sqlite' });
}
