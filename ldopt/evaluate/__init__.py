"""Judging decisions: the optima with certified bounds, regret and its report, and the LP
relaxation (bounds and decisions where exact optima are out of reach; the dual's LP start)."""
