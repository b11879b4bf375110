// The buttons of an agent's registration offers (useRegisterOffer); each opens the confirm step.
// `named`: the visible words name the agent too (where several agents' offers stand together).
import type { useRegisterOffer } from './useRegisterOffer';

const OFFER_WORDS = {
  receiver: 'Register this receiver',
  exposure: 'Register the public URL',
  hub: 'Point the webhook at the team hub',
} as const;

type Offer = ReturnType<typeof useRegisterOffer>;

export function RegisterButtons({
  offer,
  who,
  named = false,
}: {
  offer: Pick<Offer, 'offers' | 'busy' | 'confirming' | 'ask' | 'gate'>;
  who: string;
  named?: boolean;
}) {
  const { gate } = offer;
  if (offer.offers.length === 0) return null;
  return (
    <>
      {offer.offers.map((o) => (
        <button
          key={o.target}
          type="button"
          className="secondary small"
          disabled={offer.busy || offer.confirming !== null || !gate.allowed}
          onClick={() => offer.ask(o.url)}
          aria-label={`${OFFER_WORDS[o.target]} for ${who}`}
          {...gate.props}
        >
          {o.label}
          {named && ` for ${who}`}
        </button>
      ))}
      {gate.hiddenNote}
    </>
  );
}
