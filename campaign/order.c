// SPDX-License-Identifier: GPL-2.0
/*
 * The order of a campaign's runs: rounds of every side once, each
 * round's order shuffled from the seed and the round's number (so the
 * rounds added later are the same whenever they are added), and the side
 * that leads a round dealt from a shuffled deck of the sides, so over
 * every k rounds of k sides each leads once.
 */
#include "campaign/campaign.h"

#include "stats/shift.h"

static void shuffle(unsigned int *v, unsigned int n, uint64_t *rng)
{
	for (unsigned int i = n; i > 1; i--) {
		unsigned int j = (unsigned int)(fl_uniform(rng) * i);
		unsigned int t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

/* the side that leads round r: from the deck of rounds r - r % k on */
static unsigned int leader(const struct fl_campaign *c, unsigned int r)
{
	unsigned int deck[FL_CAMPAIGN_MAX_SIDES];
	uint64_t rng = c->seed ^ (0x5eedull * (r / c->nsides + 1));

	for (unsigned int i = 0; i < c->nsides; i++)
		deck[i] = i;
	shuffle(deck, c->nsides, &rng);
	return deck[r % c->nsides];
}

void fl_campaign_add_rounds(struct fl_campaign *c, unsigned int rounds)
{
	unsigned int done = c->nslots / c->nsides;

	for (unsigned int r = done; r < done + rounds &&
	     c->nslots + c->nsides <= FL_CAMPAIGN_MAX_SLOTS; r++) {
		unsigned int order[FL_CAMPAIGN_MAX_SIDES], n = 0;
		unsigned int lead = leader(c, r);
		uint64_t rng = c->seed + 0x9e37ull * (r + 1);

		for (unsigned int i = 0; i < c->nsides; i++)
			if (i != lead)
				order[n++] = i;
		shuffle(order, n, &rng);
		c->slot[c->nslots++] = (struct fl_campaign_slot){
			.side = lead };
		for (unsigned int i = 0; i < n; i++)
			c->slot[c->nslots++] = (struct fl_campaign_slot){
				.side = order[i] };
	}
}

void fl_campaign_block_order(const struct fl_campaign *c, unsigned int b,
			     unsigned char *order)
{
	unsigned int v[FL_CAMPAIGN_MAX_SIDES];
	uint64_t rng = c->seed ^ (0xb10cull * (b + 1));

	for (unsigned int i = 0; i < c->nsides; i++)
		v[i] = i;
	shuffle(v, c->nsides, &rng);
	for (unsigned int i = 0; i < c->nsides; i++)
		order[i] = (unsigned char)v[i];
}

void fl_campaign_plan_round(struct fl_campaign *c, const int *due)
{
	unsigned int v[FL_CAMPAIGN_MAX_CELLS], n = 0;
	uint64_t rng = c->seed + 0x5c4edull * (c->nsched + 1);

	for (unsigned int i = 0; i < c->ncells; i++)
		if (due[i])
			v[n++] = i;
	shuffle(v, n, &rng);
	for (unsigned int i = 0; i < n && c->nsched < FL_CAMPAIGN_MAX_BLOCKS;
	     i++)
		c->sched[c->nsched++] = (unsigned short)v[i];
}
