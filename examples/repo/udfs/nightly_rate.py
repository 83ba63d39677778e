@fused.udf
def udf(price: float = 120.0, nights: int = 3, cleaning_fee: float = 40.0):
    """The price per night of a stay, cleaning included: on no canvas (udfs/), callable by anyone in the team."""
    total = price * nights + cleaning_fee
    return {"nights": nights, "total": round(total, 2), "per_night": round(total / nights, 2)}
