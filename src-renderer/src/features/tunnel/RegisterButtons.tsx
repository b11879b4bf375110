// The buttons of an agent's registration offers (useRegisterOffer); each opens the confirm step.
// `named`: the visible words name the agent too (where several agents' offers stand together).
import type { useRegisterOffer } from './useRegisterOffer';

type Offer = ReturnType<typeof useRegisterOffer>;

export function RegisterButtons({
  offer,
  who,
  named = false,
}: {
  offer: Pick<Offer, 'offers' | 'busy' | 'confirming' | 'ask'>;
  who: string;
  named?: boolean;
}) {
  return offer.offers.map((o) => (
    <button
      key={o.target}
      type="button"
      className="secondary small"
      disabled={offer.busy || offer.confirming !== null}
      onClick={() => offer.ask(o.url)}
      aria-label={`${o.target === 'receiver' ? 'Register this receiver' : 'Register the public URL'} for ${who}`}
    >
      {o.label}
      {named && ` for ${who}`}
    </button>
  ));
}
