"""The conversation engine (IC): the belief over labels (``belief``), the answer model (``answer_model``),
question selection by information gain (``questions``, ``answer_list``), the stop rules and the paces
(``stopping``, ``policy_io``), out-of-scope detection (``out_of_scope``) and the Clarifier that asks
(``clarifier``, ``conversation``, ``records``, ``explanation``, ``implied``, ``comparison_plan``,
``query_check``). Array code only: no store writes, no Qt."""
