"""Helpers of the listings canvas, imported by its UDFs as `utils`."""
import pandas as pd


def price_per_room(df: pd.DataFrame) -> pd.DataFrame:
    """Adds a price-per-room column (rooms below 1 count as 1)."""
    out = df.copy()
    out["price_per_room"] = out["price"] / out["rooms"].clip(lower=1)
    return out
