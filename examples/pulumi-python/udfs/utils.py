import pandas as pd


def price_per_room(df: pd.DataFrame) -> pd.DataFrame:
    """Adds a price-per-room column."""
    out = df.copy()
    out["price_per_room"] = out["price"] / out["rooms"].clip(lower=1)
    return out
