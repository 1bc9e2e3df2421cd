/**
 * `/console/notices`: the signed-in user's notice feed (`GET /notices`, newest first, paged with
 * its cursor) and unread count, with "Mark read" for one notice and "Mark all read"
 * (`POST /notices/:id/read`, `POST /notices/read-all`). A notice links to the collection it is
 * about when it has one.
 */
import type { FC } from 'hono/jsx';
import { ApiError } from '../api-client.ts';
import { Form } from '../forms.tsx';
import { Avatar } from '../layout.tsx';
import { definePage, type PageContext, type PageView } from '../page.ts';
import { Hidden, Pager, When } from '../parts.tsx';

/** Notices per page. */
export const NOTICES_PAGE = 20;

interface Notice {
  id: string;
  eventType: string;
  entityType: string;
  collectionId: string | null;
  actor: { id: string; name: string; avatar?: { initials: string; color: string } };
  createdAt: string;
  readAt: string | null;
  displayMetadata: { targetLabel: string; previewText?: string };
}

/** What happened, in words, by the notice's kind. */
const VERBS: Readonly<Record<string, string>> = {
  'discussion.comment': 'started a discussion on',
  'discussion.reply': 'replied in a discussion on',
  'discussion.mention': 'mentioned you on',
};

const NoticeEntry: FC<{ page: PageContext; notice: Notice }> = ({ page, notice }) => {
  const what = notice.displayMetadata.targetLabel;
  return (
    <li class={notice.readAt ? 'notice-entry' : 'notice-entry unread'}>
      {notice.actor.avatar ? (
        <Avatar initials={notice.actor.avatar.initials} color={notice.actor.avatar.color} />
      ) : null}
      <div>
        <p>
          {notice.readAt ? null : <b class="badge">Unread</b>} {notice.actor.name}{' '}
          {VERBS[notice.eventType] ?? 'wrote about'}{' '}
          {notice.collectionId ? (
            <a href={page.href(`/collections/${encodeURIComponent(notice.collectionId)}`)}>
              {what}
            </a>
          ) : (
            what
          )}{' '}
          <span class="muted">
            · <When at={notice.createdAt} />
          </span>
        </p>
        {notice.displayMetadata.previewText ? (
          <blockquote>{notice.displayMetadata.previewText}</blockquote>
        ) : null}
        {notice.readAt ? null : (
          <Form
            action={page.href('/notices')}
            csrf={page.csrf}
            intent="read"
            inline
            label={`Mark read: ${notice.actor.name} on ${what}`}
          >
            <input type="hidden" name="id" value={notice.id} />
            <button type="submit" class="quiet">
              Mark read<Hidden>{`: ${notice.actor.name} on ${what}`}</Hidden>
            </button>
          </Form>
        )}
      </div>
    </li>
  );
};

async function noticesView(
  page: PageContext,
  refusal?: { message: string; status: 404 },
): Promise<PageView> {
  const cursor = page.query('cursor');
  const [feed, unread] = await Promise.all([
    page.api.get<{ notices: Notice[]; nextCursor?: string }>(
      `/notices?limit=${NOTICES_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    ),
    page.api.get<{ count: number }>('/notices/unread-count'),
  ]);
  return {
    title: 'Notices',
    status: refusal?.status ?? 200,
    body: (
      <>
        {refusal ? (
          <p class="notice bad" role="alert" id="refusal">
            {refusal.message}
          </p>
        ) : null}
        <section class="card" aria-labelledby="feed-title">
          <h2 id="feed-title">
            {unread.count === 0 ? 'Nothing unread' : `${unread.count} unread`}
          </h2>
          {unread.count > 0 ? (
            <Form action={page.href('/notices')} csrf={page.csrf} intent="read-all" inline>
              <button type="submit">Mark all read</button>
            </Form>
          ) : null}
          {feed.notices.length === 0 ? (
            <p class="muted" id="empty">
              No notices: you hear here when someone comments where you take part, or mentions you.
            </p>
          ) : (
            <ul class="notices" id="notices">
              {feed.notices.map((notice) => (
                <NoticeEntry page={page} notice={notice} />
              ))}
            </ul>
          )}
          <Pager page={page} path="/notices" next={feed.nextCursor} what="notices" />
        </section>
      </>
    ),
  };
}

export const noticesPage = definePage({
  path: '/notices',
  summary: "The signed-in user's notices, with Mark read",
  admin: false,
  nav: 'Notices',
  get: (page) => noticesView(page),
  async post(page, fields) {
    try {
      if (fields.intent === 'read-all') await page.api.send('POST', '/notices/read-all');
      else if (fields.intent === 'read' && fields.id)
        await page.api.send('POST', `/notices/${encodeURIComponent(fields.id)}/read`);
      else return { ...(await noticesView(page)), status: 400 };
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 404) throw error;
      return noticesView(page, { message: error.message, status: 404 });
    }
    return { redirect: '/notices' };
  },
});
