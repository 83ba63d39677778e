@fused.udf(cache_max_age="1h")
def udf(city: str = "nyc"):
    import pandas as pd
    from utils import price_per_room

    df = pd.read_parquet(f"s3://demo-bucket/listings/{city}.parquet")
    return price_per_room(df)
