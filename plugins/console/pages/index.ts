/**
 * Every console page, in the order of the navigation. A new page is a file beside this one
 * (`definePage` in ../page.ts) and one line here; the plugin mounts its routes and documents them
 * in `/openapi.json` from this list.
 */
import type { ConsolePage } from '../page.ts';
import { collectionPage } from './collection.tsx';
import { collectionsPage } from './collections.tsx';
import { historyPage } from './history.tsx';
import { homePage } from './home.tsx';
import { noticesPage } from './notices.tsx';
import { profilePage } from './profile.tsx';
import { trashPage } from './trash.tsx';

export const pages: readonly ConsolePage[] = [
  homePage,
  collectionsPage,
  collectionPage,
  trashPage,
  historyPage,
  noticesPage,
  profilePage,
];
