import { type MouseEvent, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { reviewStyles } from '@review-views/review-styles';

import { EpisodeScreen, RolloutScreen } from './detail-screens';
import { useRoute } from './hash-route';
import { RolloutListScreen } from './rollout-list-screen';
import { SessionBar } from './session-bar';

/**
 * The fragment holds the route, so an in-page link to a piece of evidence (`#c-7`) would replace the page: it
 * scrolls to the element instead.
 */
const followInPageLinks = (event: MouseEvent<HTMLElement>) => {
  const link = (event.target as HTMLElement).closest('a');
  const href = link?.getAttribute('href') ?? '';
  if (href.startsWith('#') && !href.startsWith('#/')) {
    event.preventDefault();
    document.getElementById(href.slice(1))?.scrollIntoView({ block: 'center' });
  }
};

const ConsoleApp = () => {
  const route = useRoute();
  return (
    <div onClick={followInPageLinks}>
      <nav className="top">
        <a href="#/rollouts">Mirror review</a>
        <a href="#/rollouts">Rollouts</a>
        <SessionBar />
      </nav>
      <main>
        {route.page === 'rollouts' && <RolloutListScreen query={route.query} />}
        {route.page === 'rollout' && <RolloutScreen key={route.id} id={route.id} />}
        {route.page === 'episode' && <EpisodeScreen key={route.id} id={route.id} />}
        {route.page === 'unknown' && <p className="page-error">No page {route.path}</p>}
      </main>
    </div>
  );
};

const style = document.createElement('style');
style.textContent = reviewStyles;
document.head.append(style);
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ConsoleApp />
  </StrictMode>,
);
