// @vitest-environment jsdom
// The sidebar's notices: "Dismiss all" as soon as there are two; a notice's words shown whole.
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { Toasts } from '../../../src-renderer/src/components/Toasts';
import { mount, setup } from './fixtures';

afterEach(cleanup);

const LONG =
  'The number is not linked to WhatsApp. A person must scan a pairing QR code on the phone that holds the number; retrying never helps, and the agent answers nobody until then.';

describe('notices in the sidebar', () => {
  it('offers "Dismiss all" from two notices, not before', () => {
    const { store } = setup();
    mount(store, <Toasts />);
    const region = () => screen.getByRole('status', { name: 'Notifications' });
    act(() => void store.getState().pushNotice({ tone: 'warning', title: 'First', body: LONG }));
    expect(within(region()).queryByRole('button', { name: 'Dismiss all' })).toBeNull();
    act(() => void store.getState().pushNotice({ tone: 'info', title: 'Second' }));
    expect(region().textContent).not.toContain('more');
    fireEvent.click(within(region()).getByRole('button', { name: 'Dismiss all' }));
    expect(store.getState().notices).toEqual([]);
  });

  it("shows a notice's words whole: the full sentence on screen, no tooltip holding the rest", () => {
    const { store } = setup();
    mount(store, <Toasts />);
    act(() => void store.getState().pushNotice({ tone: 'urgent', title: 'Support bot needs a QR scan', body: LONG }));
    const body = document.querySelector('.toast-body')!;
    expect(body.textContent).toBe(LONG);
    expect(body.getAttribute('title')).toBeNull();
  });
});
