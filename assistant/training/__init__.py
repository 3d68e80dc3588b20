"""Training the trained parts: the SRU encoder prior (``encoder``, its batches and its tuning on dev queries in
``encoder_batches`` and ``encoder_tuning``), the STOP/ASK policy with REINFORCE against the simulator
(``policy``, ``rollouts``), and the resume points that let a cancelled training go on (``resume``). Jobs
yield Progress; checkpoints are written through models.checkpoint."""
