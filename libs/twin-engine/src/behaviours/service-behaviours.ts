import type { ResourceShape } from '@libs/openapi-schemas';
import type { ServiceModel } from '@libs/stack-ingestion';

import { detectActions } from '../actions/action-detection';
import { ItemActions } from '../actions/item-actions';
import type { CrudContext, Outcome } from '../crud-behaviour';
import type { OperationPlan } from '../operation-plan';
import type { TwinResponse } from '../twin-http';

type CrudPlan = OperationPlan & { shape: ResourceShape };

/**
 * What a client's service does beyond CRUD: actions on items (`POST /tickets/{id}/escalate`). Answers the operations
 * it knows and leaves every other one (undefined) to the generic twin.
 */
export class ServiceBehaviours {
  readonly actions: ItemActions;

  constructor(service: ServiceModel, shapes: ResourceShape[], plans: OperationPlan[]) {
    this.actions = new ItemActions(service.document, detectActions(service, shapes, plans));
  }

  execute(
    plan: OperationPlan,
    context: (plan: CrudPlan) => CrudContext,
    crud: (context: CrudContext) => Outcome,
    answer: () => TwinResponse,
  ): Outcome | undefined {
    const action = this.actions.of(plan.index);
    if (!action) {
      return undefined;
    }
    if (action.childCreate) {
      const created = context(plan as CrudPlan);
      return this.actions.afterChildCreate(action, created, crud(created));
    }
    return this.actions.perform(action, context(action.plan), answer);
  }
}
