// Small words of the CLI's status lines. An agent's health word is the monitor's (healthOfStatus):
// one list for the core, the contract, the screens and the command line.

export function yesNo(b: boolean | undefined): string {
  return b === undefined ? '-' : b ? 'yes' : 'no';
}
