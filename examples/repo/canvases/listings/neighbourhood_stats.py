@fused.udf(cache_max_age="10m")
def udf(city: str = "nyc", min_listings: int = 5):
    """Median price per neighbourhood, for neighbourhoods with enough listings."""
    import pandas as pd

    df = pd.read_parquet(f"s3://demo-bucket/listings/{city}.parquet")
    stats = df.groupby("neighbourhood", as_index=False).agg(
        listings=("price", "size"),
        median_price=("price", "median"),
    )
    return stats[stats["listings"] >= min_listings].sort_values("median_price", ascending=False)
