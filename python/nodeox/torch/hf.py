"""nodeox.torch.hf: HF transformers' Trainer in heterogeneous rounds.

    ctx = nxt.init()
    model = ...
    opt = nxt.RoundsOptimizer(torch.optim.AdamW(model.parameters(), lr=5e-4),
                              local_steps=10, total_steps=200, model=model)
    args = TrainingArguments(output_dir=..., max_steps=200, logging_steps=20,
                             save_steps=100, eval_strategy="steps", eval_steps=50,
                             lr_scheduler_type="constant", use_cpu=(ctx.device.type == "cpu"))
    trainer = Trainer(model=model, args=args, train_dataset=this_ranks_shard,
                      optimizers=(opt, None), callbacks=[RoundsCallback()])
    trainer.train()

RoundsCallback finds the RoundsOptimizer through the Trainer's optimizer
(Accelerate wraps it), and after every optimizer step sets Trainer's
state.global_step to the engine's global step, so logging, evaluation and
saving happen at the same global steps on every rank: a round end that
crosses a multiple of logging_steps / eval_steps / save_steps logs /
evaluates / saves (global steps advance by a round at a time, on every
rank at once). Training stops on every rank at the same round end, when
the optimizer is done (its total_steps; give Trainer max_steps >= it).
Checkpoints are written by rank 0 only (the weights of a round end are the
same on every rank); each rank trains on its own data shard (Trainer sees
a world of one: nxt.init removes the launcher's rank variables).
"""

from transformers import TrainerCallback

from . import RoundsOptimizer


def find_rounds_optimizer(optimizer):
    """The RoundsOptimizer inside optimizer (Accelerate's AcceleratedOptimizer
    and similar wrappers keep the one they wrap in .optimizer)."""
    seen = 0
    while optimizer is not None and seen < 8:
        if isinstance(optimizer, RoundsOptimizer):
            return optimizer
        optimizer = getattr(optimizer, "optimizer", None)
        seen += 1
    return None


class RoundsCallback(TrainerCallback):
    """Keeps a Trainer's steps in the engine's global steps (see the module)."""

    def __init__(self):
        self.opt = None
        self._last = 0
        self._logged_at = 0      # global step of the last log
        self._local_since = 0    # this rank's optimizer steps since then

    def _find(self, kwargs):
        if self.opt is None:
            self.opt = find_rounds_optimizer(kwargs.get("optimizer"))
            if self.opt is None:
                raise RuntimeError(
                    "nodeox.torch.hf.RoundsCallback: the Trainer's optimizer is no RoundsOptimizer: "
                    "pass optimizers=(nxt.RoundsOptimizer(inner, ...), None) to Trainer")
        return self.opt

    def on_train_begin(self, args, state, control, **kwargs):
        opt = self._find(kwargs)
        if opt.total_steps is not None and args.max_steps > 0 and args.max_steps < opt.total_steps:
            raise ValueError("nodeox.torch.hf.RoundsCallback: Trainer's max_steps %d is below the "
                             "RoundsOptimizer's total_steps %d: the ranks would stop at different "
                             "places; give max_steps >= total_steps" % (args.max_steps, opt.total_steps))
        self._last = self._logged_at = opt.global_step
        state.global_step = self._last

    @staticmethod
    def _crossed(before, after, every):
        return every is not None and every > 0 and int(after // every) > int(before // every)

    def on_step_end(self, args, state, control, **kwargs):
        opt = self._find(kwargs)
        before, now = self._last, opt.global_step
        self._local_since += 1
        self._last = now
        state.global_step = now
        ended = opt.round_ended
        strategy = lambda s: str(getattr(s, "value", s))  # IntervalStrategy or str
        control.should_log = ended and strategy(args.logging_strategy) == "steps" and \
            self._crossed(before, now, args.logging_steps)
        control.should_evaluate = ended and strategy(args.eval_strategy) == "steps" and \
            self._crossed(before, now, args.eval_steps or args.logging_steps)
        control.should_save = ended and strategy(args.save_strategy) == "steps" and \
            self._crossed(before, now, args.save_steps) and _rank() == 0
        # decided here alone, from the global step: the same on every rank
        control.should_training_stop = opt.done or (state.max_steps > 0 and now >= state.max_steps)
        if opt.done:
            control.should_save = strategy(args.save_strategy) != "no" and _rank() == 0
        return control

    def on_log(self, args, state, control, logs=None, **kwargs):
        # Trainer divides the loss summed over this rank's steps by the global
        # steps since the last log; a slower rank took fewer: its mean is over
        # its own steps (printed and in log_history).
        if logs and "loss" in logs and self._local_since > 0:
            span = state.global_step - self._logged_at
            if span > 0:
                loss = round(logs["loss"] * span / self._local_since, 4)
                if state.log_history and state.log_history[-1].get("loss") == logs["loss"]:
                    state.log_history[-1]["loss"] = loss
                logs["loss"] = loss
            self._logged_at, self._local_since = state.global_step, 0
        return control

    def on_epoch_end(self, args, state, control, **kwargs):
        # An epoch ends on each rank after its own number of batches: no
        # saving or evaluating there (ranks would differ); steps decide.
        control.should_save = False
        control.should_evaluate = False
        return control


def _rank():
    from . import _ctx
    return _ctx.rank if _ctx is not None else 0
