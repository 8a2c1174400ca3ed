"""pascal_eval - evaluation tools beside PASCAL's own `pascal evaluate` (the
reference implementation of "PASCAL: A Progress Divergence-Aware Shared-Cache
Model" by Zhou, Wang, Mao, Lai and Zhang).

pascal_eval.learned is the paper's learning-baseline comparison (section
"Dynamic prediction: comparisons", Figure "prediction"): six scikit-learn
regressors trained on a calibration bundle's runs with the static features of
each run and scored on its held-out panel with the same balanced MAPE and
paired key-bootstrap intervals as `pascal evaluate` (docs/learned-baselines.md).
Needs Python 3.9+ with NumPy and scikit-learn (Debian: python3-sklearn).
"""
