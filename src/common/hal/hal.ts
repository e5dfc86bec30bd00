export interface HalLink {
  href: string;
}

export type HalLinks = Record<string, HalLink>;

/** Builds HAL `_links` from relative hrefs: the one place links are shaped (contract section 4). */
export function halLinks(links: Record<string, string | undefined>): HalLinks {
  const out: HalLinks = {};
  for (const [rel, href] of Object.entries(links)) if (href !== undefined) out[rel] = { href };
  return out;
}

export const HAL_CONTENT_TYPE = 'application/hal+json;charset=UTF-8';
