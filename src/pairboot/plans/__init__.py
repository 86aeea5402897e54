"""A family decided in advance: the plan file's schema and checks (:mod:`.plan_file`)
and the :class:`~pairboot.plans.plan.Plan` a run is held to (:mod:`.plan`).
"""
