@fused.udf(cache_max_age="1h")
def udf(city: str = "nyc", limit: int = 500):
    """Loads the listings of one city with a price-per-room column."""
    import pandas as pd

    import geo
    import utils

    df = pd.read_parquet(f"s3://demo-bucket/listings/{city}.parquet")
    df = geo.within_bbox(df, geo.city_bbox(city))
    return utils.price_per_room(df).head(limit)
