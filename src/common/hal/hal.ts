import { ApiProperty, ApiSchema } from '@nestjs/swagger';

/** A HAL link; its OpenAPI schema is this class (contract section 4). */
@ApiSchema({ name: 'HalLink', description: 'A HAL link: a path relative to the base address' })
export class HalLink {
  @ApiProperty({ type: String, description: 'Relative URL', example: '/webhooks/subscriptions/1' })
  href: string;
}

/** The `_links` of a resource that links to itself only. */
@ApiSchema({ name: 'SelfLinks', description: 'HAL links of a resource' })
export class SelfLinks {
  @ApiProperty({ type: HalLink, description: 'The resource itself' }) self: HalLink;
}

export type HalLinks = Record<string, HalLink>;

/** Builds HAL `_links` from relative hrefs: the one place links are shaped (contract section 4). */
export function halLinks(links: Record<string, string | undefined>): HalLinks {
  const out: HalLinks = {};
  for (const [rel, href] of Object.entries(links)) if (href !== undefined) out[rel] = { href };
  return out;
}

export const HAL_CONTENT_TYPE = 'application/hal+json;charset=UTF-8';
