// Settings: how long messages are kept. Older messages are hidden everywhere, and the sends older
// than that leave the send log; received messages also leave when the tunnel's log drops them.
import { useEffect } from 'react';
import { useConnectedHub } from '../../components/allowed';
import { useApp } from '../../store/react';
import { NumberSetting } from './NumberSetting';

export function MessageRetention() {
  const inbox = useApp((s) => s.inbox);
  const loadInbox = useApp((s) => s.loadInbox);
  const setRetention = useApp((s) => s.setRetention);
  const onHub = useConnectedHub() !== null;
  useEffect(() => {
    if (!inbox.loaded) void loadInbox();
  }, [inbox.loaded, loadInbox]);
  return (
    <section className="card" aria-labelledby="message-retention-title">
      <h3 id="message-retention-title">Messages</h3>
      <NumberSetting
        label="Keep messages (days)"
        hint={
          onHub
            ? "Older messages are hidden, and what was sent through the hub is removed from it. Received messages also leave when the hub's log drops them (after 14 days by default)."
            : "Older messages are hidden, and what was sent from here is removed from this computer. Received messages also leave when the tunnel's log drops them (after 14 days by default)."
        }
        field="retentionDays"
        value={inbox.retentionDays}
        min={1}
        max={3650}
        save={setRetention}
        request="messages.setRetention"
      />
    </section>
  );
}
