/** A node of PostgreSQL's `EXPLAIN (FORMAT JSON)` plan, as the plan tests read it. */
export interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Rows Removed by Filter'?: number;
  /** Rows the node returned (EXPLAIN ANALYZE). */
  'Actual Rows'?: number;
  Plans?: PlanNode[];
}

/** Every node of a plan, the root first. */
export const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];
