import { useMemo } from 'react';
import { useApp } from '../store/react';
import { parseRoute, type Route } from './routes';

export function useRoute(): Route {
  const hash = useApp((s) => s.route);
  return useMemo(() => parseRoute(hash), [hash]);
}
