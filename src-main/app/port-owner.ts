// Who holds a local port, in words, and a free port near a taken one: what a shell says when it cannot listen.
export { describeOwner, freePortNear, isPortTaken, portOwner } from '../core/port-owner';
