@fused.udf(cache_max_age="1d")
def udf(city: str = "nyc", weeks: int = 1):
    """New listings and median price per week."""
    import pandas as pd

    import geo

    df = pd.read_parquet(f"s3://demo-bucket/listings/{city}.parquet")
    df = geo.within_bbox(df, geo.city_bbox(city))
    df["week"] = pd.to_datetime(df["first_seen"]).dt.to_period("W").dt.start_time
    summary = df.groupby("week", as_index=False).agg(new_listings=("id", "size"), median_price=("price", "median"))
    return summary.tail(weeks)
